// Documents of a load, written incomplete: invisible to every read until
// load/flip_documents.cypher relabels them (seq: load order; kind_counts: units
// per kind; anames: attribute name -> units having it, JSON in first-seen order)
UNWIND $docs AS r
MERGE (d:IncompleteDocument {name: r.name})
SET d.source = r.source, d.kind = r.kind, d.length = r.length, d.count = r.count,
    d.seq = r.seq, d.digest = r.digest, d.kind_counts = r.kind_counts, d.anames = r.anames
