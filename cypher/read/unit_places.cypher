// The document and preorder number of some stored units, by id (the caller
// knows which documents are complete)
UNWIND $ids AS id
MATCH (u:Unit {uid: id})
RETURN id, u.doc AS doc, u.pre AS pre
