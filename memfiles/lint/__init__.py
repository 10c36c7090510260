"""The lint engine and its rules, which are also the write guard."""
