// The root unit of some stored documents
UNWIND $names AS name
MATCH (d:Document {name: name})-[:ROOT]->(u:Unit)
WHERE d.complete
RETURN name, u.uid AS uid
