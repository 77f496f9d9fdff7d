// ROOT edge from a document to its root unit
UNWIND $docs AS r
MATCH (d:Document {name: r.name})
MATCH (u:Unit {uid: r.root})
MERGE (d)-[:ROOT]->(u)
