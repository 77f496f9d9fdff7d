// The partitions of some stored summaries that hold a root element (one whose
// parent is not an element: a document's root, or an element under a page):
// where the explorer page's trees start
MATCH (d:Document)-[:ROOT]->(r:Unit)
WHERE d.complete
OPTIONAL MATCH (r)-[:CHILD]->(e:Unit {kind: 0})
WHERE r.kind <> 0
WITH CASE WHEN r.kind = 0 THEN r ELSE e END AS u
WHERE u IS NOT NULL
MATCH (u)-[:IN_PARTITION]->(s:Summary)
WHERE s.axpre IN $names
RETURN DISTINCT s.axpre AS axpre, s.sid AS sid
