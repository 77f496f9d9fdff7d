// The kind of some units, by id
UNWIND $ids AS id
MATCH (u:Unit {uid: id})
RETURN id, u.kind AS kind
