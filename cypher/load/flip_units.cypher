// Make the units of completely written documents visible
UNWIND $names AS name
MATCH (u:IncompleteUnit {doc: name})
SET u:Unit
REMOVE u:IncompleteUnit
