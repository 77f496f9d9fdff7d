// The units of some documents in preorder, with their tag, label path and columns
MATCH (u:Unit)
WHERE u.doc IN $names
RETURN u.doc AS doc, [u.pre, u.kind, u.depth, u.ppre, u.post, u.size, u.pos, u.start,
       u.length, u.words] AS v, u.tag AS tag, u.path AS path
ORDER BY doc, u.pre
