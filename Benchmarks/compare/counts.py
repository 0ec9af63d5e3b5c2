"""Row counts on the command line, written as `vibes-analyze bench --n` takes them."""


def parse_counts(text):
    """'1e5,1e6,250000,100k,1m' -> [100000, 1000000, 250000, 100000, 1000000]."""
    values = []
    for part in text.split(","):
        part = part.strip().lower()
        scale = 1
        if part.endswith("k"):
            part, scale = part[:-1], 1000
        elif part.endswith("m"):
            part, scale = part[:-1], 1000000
        values.append(int(float(part) * scale))
    return values
