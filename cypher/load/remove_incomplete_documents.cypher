// Remove documents left incomplete by an interrupted load
UNWIND $names AS name
MATCH (d:IncompleteDocument {name: name})
DETACH DELETE d
