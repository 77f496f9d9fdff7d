// Remove the units of the stored versions of documents a load replaces
UNWIND $names AS name
MATCH (u:Unit {doc: name})
DETACH DELETE u
