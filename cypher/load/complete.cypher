// Make the documents of a load visible
UNWIND $names AS name
MATCH (d:Document {name: name})
SET d.complete = true
