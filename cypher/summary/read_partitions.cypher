// A stored summary's partitions (extent, length, tag, key, weight, steady state π)
MATCH (s:Summary {axpre: $axpre})
RETURN s.sid AS sid, s.key AS key, s.tag AS tag, s.extent AS extent, s.length AS length,
       s.weight AS weight, s.pi AS pi
