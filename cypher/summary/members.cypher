// The partitions of some stored units under some stored summaries
UNWIND $ids AS id
MATCH (u:Unit {uid: id})-[:IN_PARTITION]->(s:Summary)
WHERE s.axpre IN $names
RETURN id, s.axpre AS axpre, s.sid AS sid
