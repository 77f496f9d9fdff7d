// Per partition of the stored summary $axpre, the partitions of some stored
// summaries ($names, each determined by $axpre: every element of one $axpre
// partition is in the same partition of each) holding one of its elements:
// the explorer page's refinements without a scan of the collection.  As
// parallel lists, $k pairs a row (read_partitions.cypher says why): the
// $axpre partition's number (1 for S1), the other summary, its partition's
// number (a list per partition costs the server a third more)
MATCH (s:Summary {axpre: $axpre})
CALL {
  WITH s
  MATCH (s)<-[:IN_PARTITION]-(u:Unit)
  RETURN u
  LIMIT 1
}
MATCH (u)-[:IN_PARTITION]->(t:Summary)
WHERE t.axpre IN $names
WITH collect(toInteger(substring(s.sid, 1))) AS part, collect(t.axpre) AS axpre,
     collect(toInteger(substring(t.sid, 1))) AS holder
UNWIND range(0, size(part) - 1, $k) AS i
RETURN part[i..i + $k] AS part, axpre[i..i + $k] AS axpre, holder[i..i + $k] AS holder
