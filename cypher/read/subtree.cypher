// A unit and all its descendants, through CHILD edges
MATCH (r:Unit {uid: $uid})-[:CHILD*0..]->(u:Unit)
RETURN u.seq AS seq, u.pre AS pre
