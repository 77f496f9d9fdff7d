// The partition number of the units of some stored documents under a stored
// summary (sid S12 -> 12): a row per slice of $slice units of a document (see
// document_columns.cypher, and why WITH), the units' pre and partition numbers
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
WITH name
MATCH (u:Unit {doc: name})-[:IN_PARTITION]->(s:Summary {axpre: $axpre})
RETURN name, toInteger(floor(u.pre / $slice)) AS part, collect(u.pre) AS pre,
       collect(toInteger(substring(s.sid, 1))) AS sid
