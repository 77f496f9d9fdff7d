// A stored summary's partitions (extent, length, tag, key, weight, steady state π)
// and the sample elements each kept (summary/number.cypher; null for a summary
// built before partitions kept them): uids and places seq * 2^32 + pre
MATCH (s:Summary {axpre: $axpre})
RETURN s.sid AS sid, s.key AS key, s.tag AS tag, s.extent AS extent, s.length AS length,
       s.weight AS weight, s.pi AS pi, s.samples AS samples, s.sample_places AS places
