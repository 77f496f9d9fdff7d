// Every unit as one list (decoded into numpy columns by the store)
MATCH (u:Unit)
RETURN [u.seq, u.pre, u.kind, u.depth, u.ppre, u.post, u.size, u.pos, u.start, u.length,
        u.words] AS v, u.tag AS tag, u.path AS path
