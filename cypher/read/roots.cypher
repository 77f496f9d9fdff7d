// The root unit of some stored documents
UNWIND $names AS name
MATCH (:Document {name: name})-[:ROOT]->(u:Unit)
RETURN name, u.uid AS uid
