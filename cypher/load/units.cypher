// Unit nodes, merged on their id
UNWIND $units AS r
MERGE (u:Unit {uid: r.uid})
SET u += r
