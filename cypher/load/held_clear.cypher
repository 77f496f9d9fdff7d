// Forget the held link counts of documents $names (load/held.cypher counts
// them again): only units that have one are written
UNWIND $names AS name
MATCH (u:Unit {doc: name})
WHERE u.held IS NOT NULL
SET u.held = null
