// ROOT edge from a document to its root unit (a load into an empty store)
UNWIND $docs AS r
MATCH (d:Document {name: r.name})
MATCH (u:Unit {uid: r.root})
CREATE (d)-[:ROOT]->(u)
