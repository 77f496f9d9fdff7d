UNWIND $ids AS id
MATCH (u:Unit {uid: id})
RETURN id, u.seq AS seq, u.pre AS pre
