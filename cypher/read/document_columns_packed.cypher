// The units of some stored documents, packed for FalkorDB's Redis port
// (FalkorDB only: toJSON and string.join are its own functions): a row per
// document, a JSON list per number (in the order of document_columns.cypher;
// the lists of a row in the same unit order, the client sorts by pre), its tags
// and label paths each joined by a newline.  A reply of a few long strings
// costs the client little, where one value per list item (document_columns
// over Redis) costs redis-py about 1.7 µs each.  The port writes a double with
// 15 digits, exact for a whole number below 10^15 (digits only); a document
// whose start or length is any other is read over Bolt.  WITH between the
// matches: see document_columns.cypher.
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
WITH name
MATCH (u:Unit {doc: name})
RETURN name, toJSON(collect(u.pre)) AS pre, toJSON(collect(u.kind)) AS kind,
       toJSON(collect(u.depth)) AS depth, toJSON(collect(u.ppre)) AS ppre,
       toJSON(collect(u.post)) AS post, toJSON(collect(u.size)) AS size,
       toJSON(collect(u.pos)) AS pos, toJSON(collect(u.start)) AS start,
       toJSON(collect(u.length)) AS length, toJSON(collect(u.words)) AS words,
       string.join(collect(u.tag), '\n') AS tag, string.join(collect(u.path), '\n') AS path
