#!/usr/bin/env python3
"""Generate a folder of Exportify playlist CSVs shaped like a personal library, for timing `eval` and
`weights learn` (issue 43).

    python3 Benchmarks/compare/make_exportify_library.py OUT_DIR [--source CSV] [--seed 42]
        [--tracks 13558] [--labelled 9871] [--playlists 99]

The library it stands in for (issue 41) is 99 real Exportify playlists of one listener: 13,558
tracks, 9,871 of them in playlists that `eval --label playlist` keeps, with artist genres. Those
playlists are not public, so this builds the same shape from the tidytuesday CSV (default:
../shared/data/tidytuesday-2020-01-21/spotify_songs.csv relative to the repository):

- PLAYLISTS - 1 coherent playlists: tidytuesday's own playlists, shuffled with random.Random(SEED)
  within a (genre, subgenre) order, taken in that order until they hold LABELLED distinct tracks,
  and merged in runs so that there are PLAYLISTS - 1 of them (each about 100 tracks, mostly of one
  subgenre);
- one broad mix of every remaining track up to TRACKS in all, plus enough of the others to hold 32 %
  of the library (more than 30 %), which `eval` leaves out as a catch-all;
- the Exportify columns (current layout), `Genres` being each artist's three most frequent
  tidytuesday subgenres over the whole file (a stand-in for Spotify artist genres, set per artist),
  `Time Signature` 4, `Added At` a fixed date per playlist row.

The output is deterministic for a given source, seed and sizes. Pure standard library.
"""
import argparse
import collections
import csv
import os
import random
import re
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEFAULT_SOURCE = os.path.join(REPO, "..", "shared", "data", "tidytuesday-2020-01-21", "spotify_songs.csv")
HEADER = ["Track URI", "Track Name", "Album Name", "Artist Name(s)", "Release Date", "Duration (ms)", "Popularity",
          "Explicit", "Added By", "Added At", "Genres", "Record Label", "Danceability", "Energy", "Key",
          "Loudness", "Mode", "Speechiness", "Acousticness", "Instrumentalness", "Liveness", "Valence", "Tempo",
          "Time Signature"]
FEATURES = ["danceability", "energy", "key", "loudness", "mode", "speechiness", "acousticness",
            "instrumentalness", "liveness", "valence", "tempo"]
CATCH_ALL_SHARE = 0.32  # above `eval`'s 30 % with room to spare


def exportify_row(song, genres, added_at):
    return ([f"spotify:track:{song['track_id']}", song["track_name"], song["track_album_name"],
             song["track_artist"], song["track_album_release_date"], song["duration_ms"],
             song["track_popularity"], "false", "", added_at, genres.get(song["track_artist"], ""), ""]
            + [song[name] for name in FEATURES] + ["4"])


def file_name(index, name):
    safe = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")[:40] or "playlist"
    return f"{index:03d}_{safe}.csv"


def generate(out_dir, source, seed, tracks, labelled, playlist_count):
    with open(source, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    songs = {}
    by_playlist = collections.defaultdict(list)
    names = {}
    kinds = {}
    subgenres_of_artist = collections.defaultdict(collections.Counter)
    for row in rows:
        songs.setdefault(row["track_id"], row)
        if row["track_id"] not in by_playlist[row["playlist_id"]]:
            by_playlist[row["playlist_id"]].append(row["track_id"])
        names[row["playlist_id"]] = row["playlist_name"]
        kinds[row["playlist_id"]] = (row["playlist_genre"], row["playlist_subgenre"])
        subgenres_of_artist[row["track_artist"]][row["playlist_subgenre"]] += 1
    genres = {artist: ",".join(sorted(g for g, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]))
              for artist, counts in subgenres_of_artist.items()}
    rng = random.Random(seed)
    order = sorted(by_playlist)
    rng.shuffle(order)
    # Taken in shuffled order until they hold `labelled` tracks, then grouped by subgenre so that a
    # merged playlist is mostly of one kind.
    taken, seen = [], set()
    for playlist in order:
        if len(seen) >= labelled:
            break
        taken.append(playlist)
        seen.update(by_playlist[playlist])
    taken.sort(key=lambda p: (kinds[p], order.index(p)))
    coherent = playlist_count - 1
    if len(taken) < coherent:
        sys.exit(f"make_exportify_library.py: only {len(taken)} source playlists for {coherent} playlists")
    groups = [[] for _ in range(coherent)]
    for position, playlist in enumerate(taken):
        groups[position * coherent // len(taken)].append(playlist)
    # The broad mix: every other track up to `tracks`, then enough known ones to be a catch-all.
    others = [track for playlist in order[len(taken):] for track in by_playlist[playlist]]
    mix, in_mix = [], set()
    for track in others:
        if len(seen) + len(mix) >= tracks:
            break
        if track not in seen and track not in in_mix:
            mix.append(track)
            in_mix.add(track)
    known = sorted(seen)
    rng.shuffle(known)
    needed = int(CATCH_ALL_SHARE * (len(seen) + len(mix))) + 1 - len(mix)
    mix.extend(known[:max(0, needed)])

    os.makedirs(out_dir, exist_ok=True)
    for old in os.listdir(out_dir):
        if old.endswith(".csv"):
            os.remove(os.path.join(out_dir, old))
    playlists = []
    for index, group in enumerate(groups):
        members = []
        for playlist in group:
            members.extend(t for t in by_playlist[playlist] if t not in members)
        playlists.append((file_name(index, " + ".join(names[p] for p in group[:2])), members))
    playlists.append((file_name(coherent, "Everything mix"), mix))
    for index, (name, members) in enumerate(playlists):
        added_at = f"2024-{1 + index % 12:02d}-{1 + index % 28:02d}T12:00:00Z"
        with open(os.path.join(out_dir, name), "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(HEADER)
            for track in members:
                writer.writerow(exportify_row(songs[track], genres, added_at))
    distinct = len(set().union(*(set(m) for _, m in playlists)))
    return len(playlists), distinct, len(seen), len(mix)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--tracks", type=int, default=13_558)
    parser.add_argument("--labelled", type=int, default=9_871)
    parser.add_argument("--playlists", type=int, default=99)
    args = parser.parse_args()
    if not os.path.isfile(args.source):
        sys.exit(f"make_exportify_library.py: no source CSV at {args.source}; pass --source")
    count, distinct, labelled, mix = generate(args.out_dir, args.source, args.seed, args.tracks, args.labelled,
                                              args.playlists)
    print(f"{count} playlists, {distinct:,} distinct tracks, {labelled:,} in the coherent playlists, "
          f"{mix:,} in the broad mix, in {args.out_dir}")


if __name__ == "__main__":
    main()
