UNWIND $names AS name
MATCH (d:Document {name: name})
DETACH DELETE d
