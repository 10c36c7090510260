"""The read side: words, dates, scoring, ranking, the recall index and the rendered block."""
