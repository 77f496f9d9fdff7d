// Attribute nodes: one per distinct (name, value) of the store (nid: 'name=value'),
// shared by the units that carry it
UNWIND $attrs AS a
MERGE (n:Attribute {nid: a.nid})
ON CREATE SET n.name = a.name, n.value = a.value
