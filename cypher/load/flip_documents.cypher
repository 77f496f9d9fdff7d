// Make completely written documents visible (after their units)
UNWIND $names AS name
MATCH (d:IncompleteDocument {name: name})
SET d:Document
REMOVE d:IncompleteDocument
