// The partition of the units of some stored documents under a stored summary
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
MATCH (u:Unit {doc: name})-[:IN_PARTITION]->(s:Summary {axpre: $axpre})
RETURN name, u.pre AS pre, s.sid AS sid
