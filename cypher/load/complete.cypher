UNWIND $names AS name
MATCH (d:Document {name: name})
SET d.complete = true
