// Text snippets and attributes of the units of some stored documents (WITH:
// see document_columns.cypher)
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
WITH name
MATCH (u:Unit {doc: name})
RETURN name, u.pre AS pre, u.text AS text, u.attributes AS attributes
