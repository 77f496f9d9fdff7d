// The partition number of the units of some stored documents under a stored
// summary (sid S12 -> 12): a row per slice of $slice units of a document (see
// document_columns.cypher, and why WITH), the units' pre and partition numbers.
// WITH u before the partition: else FalkorDB 4.16 starts from the summary and
// walks to every unit of the collection, once per document (4x the server time)
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
WITH name
MATCH (u:Unit {doc: name})
WITH name, u
MATCH (u)-[:IN_PARTITION]->(s:Summary)
WHERE s.axpre = $axpre
RETURN name, toInteger(floor(u.pre / $slice)) AS part, collect(u.pre) AS pre,
       collect(toInteger(substring(s.sid, 1))) AS sid
