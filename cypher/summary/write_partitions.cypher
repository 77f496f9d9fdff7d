// Store partitions: one Summary node per partition (extent and total length)
UNWIND $parts AS part
MERGE (s:Summary {axpre: $axpre, sid: part.sid})
SET s.key = part.key, s.extent = part.extent, s.length = part.length
