// ROOT edge from an incomplete document to its root unit
UNWIND $docs AS r
MATCH (d:IncompleteDocument {name: r.name})
MATCH (u:IncompleteUnit {uid: r.root})
MERGE (d)-[:ROOT]->(u)
