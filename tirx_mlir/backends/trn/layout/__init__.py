"""Trainium layouts: the default layouts of on-chip tiles (`layouts`) and the physical access of
a view through its TileLayout onto partitions and per-partition bytes (`physical_access`)."""
