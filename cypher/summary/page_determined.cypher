// Per partition of the stored summary $axpre (its number: 1 for S1), its extent
// and the partitions of some stored summaries ($names, each determined by
// $axpre: every element of one $axpre partition is in the same partition of
// each) holding one of its elements: the explorer page's refinements without a
// scan of the collection; $k partitions a row as parallel lists
// (read_partitions.cypher says why)
MATCH (s:Summary {axpre: $axpre})
CALL {
  WITH s
  MATCH (s)<-[:IN_PARTITION]-(u:Unit)
  RETURN u
  LIMIT 1
}
OPTIONAL MATCH (u)-[:IN_PARTITION]->(t:Summary)
WHERE t.axpre IN $names
WITH s, collect(t.axpre + ' ' + t.sid) AS parts
WITH collect(toInteger(substring(s.sid, 1))) AS sid, collect(s.extent) AS extent,
     collect(parts) AS parts
UNWIND range(0, size(sid) - 1, $k) AS i
RETURN sid[i..i + $k] AS sid, extent[i..i + $k] AS extent, parts[i..i + $k] AS parts
