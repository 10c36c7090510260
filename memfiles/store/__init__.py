"""Storage: atomic files and locks, and git."""
