// IN_PARTITION from each unit to its partition
UNWIND $members AS m
MATCH (s:Summary {axpre: $axpre, sid: m.sid})
MATCH (u:Unit {uid: m.uid})
MERGE (u)-[:IN_PARTITION]->(s)
