// Documents of a load into an empty store, incomplete until load/complete.cypher
// (as load/documents.cypher, created)
UNWIND $docs AS r
CREATE (:Document {name: r.name, source: r.source, kind: r.kind, length: r.length,
                   count: r.count, seq: r.seq, digest: r.digest, kind_counts: r.kind_counts,
                   complete: false})
