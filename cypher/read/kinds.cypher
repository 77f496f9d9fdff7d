// The kind of some stored units, by id
UNWIND $ids AS id
MATCH (u:Unit {uid: id})
WITH id, u
MATCH (d:Document {name: u.doc})
WHERE d.complete
RETURN id, u.kind AS kind
