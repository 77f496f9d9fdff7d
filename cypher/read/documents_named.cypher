// Some stored documents, by name
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
RETURN d.name AS name, d.source AS source, d.kind AS kind, d.length AS length,
       d.count AS count, d.seq AS seq
