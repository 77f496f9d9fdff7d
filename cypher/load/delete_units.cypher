// Remove the units (and their edges) and link records of some documents
UNWIND $names AS name
MATCH (u:Unit {doc: name})
DETACH DELETE u
