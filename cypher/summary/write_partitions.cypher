// Store partitions: one Summary node per partition, IN_PARTITION from each member
UNWIND $parts AS part
CREATE (s:Summary {axpre: $axpre, sid: part.sid, key: part.key, extent: size(part.uids),
                   length: part.length})
WITH s, part
UNWIND part.uids AS uid
MATCH (u:Unit {uid: uid})
CREATE (u)-[:IN_PARTITION]->(s)
