// Per partition of the stored summary $axpre, its extent and the partitions
// of some stored summaries ($names, each determined by $axpre: every element
// of one $axpre partition is in the same partition of each) holding one of
// its elements: the explorer page's refinements without a scan of the collection
MATCH (s:Summary {axpre: $axpre})
CALL {
  WITH s
  MATCH (s)<-[:IN_PARTITION]-(u:Unit)
  RETURN u
  LIMIT 1
}
OPTIONAL MATCH (u)-[:IN_PARTITION]->(t:Summary)
WHERE t.axpre IN $names
RETURN s.sid AS sid, s.extent AS extent, collect(t.axpre + ' ' + t.sid) AS parts
