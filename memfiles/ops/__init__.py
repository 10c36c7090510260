"""Operations that change a home: the write path, consolidation, sync, purge, doctor."""
