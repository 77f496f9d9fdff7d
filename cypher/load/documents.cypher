// Documents of a load, incomplete (complete = false: every read ignores them)
// until load/complete.cypher.  A document that replaces a stored one is written
// under a name of its own ($docs[i].name) and renamed then (replaces: the name).
// seq: load order; kind_counts: units per kind
UNWIND $docs AS r
MERGE (d:Document {name: r.name})
SET d.source = r.source, d.kind = r.kind, d.length = r.length, d.count = r.count,
    d.seq = r.seq, d.digest = r.digest, d.kind_counts = r.kind_counts,
    d.complete = false, d.replaces = r.replaces
