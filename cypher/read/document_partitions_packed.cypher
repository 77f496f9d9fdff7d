// The partition numbers of the units of some stored documents under a stored
// summary, packed for FalkorDB's Redis port (FalkorDB only: toJSON is its
// own; see document_columns_packed.cypher): a row per document, its units' pre
// and partition numbers (sid S12 -> 12) as JSON lists in the same unit order.
// WITH between the matches: see document_partitions.cypher.
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
WITH name
MATCH (u:Unit {doc: name})
WITH name, u
MATCH (u)-[:IN_PARTITION]->(s:Summary)
WHERE s.axpre = $axpre
RETURN name, toJSON(collect(u.pre)) AS pre, toJSON(collect(toInteger(substring(s.sid, 1)))) AS sid
