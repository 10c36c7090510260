"""The file formats: MEMORY.md, episode files, digests, mem.toml and the home's layout."""
