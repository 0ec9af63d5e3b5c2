// How many tracks to a statement: loads the rows of a store written by `vibes-analyze import`
// (/tmp/imp/floor.sqlite: tracks, feature rows, artist and tag links) into memory, then inserts the
// first TRACKS of them into a fresh store of the same schema, N tracks to a statement, with the
// indexes an import defers built after them, and prints the wall and CPU seconds of each step.
//
//   gcc -O2 -o batched_inserts batched_inserts.c -lsqlite3
//   ./batched_inserts FRESH_STORE N TRACKS     # N: 1, 8, 32, 64, 256; TRACKS: 300000
//
// The fresh store is made by `vibes-analyze features precedence --reset --db FRESH_STORE`.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
// Loads rows of floor.sqlite into memory, then inserts them into a fresh store copy (schema from copy-template)
// as the writer does: per track 4 statements (single), or N tracks per statement (multi).
typedef struct { sqlite3_value *v[13]; } Row;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
static double cpu(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec/1e9;}
#define CHK(x) do{int rc=(x); if(rc!=SQLITE_OK&&rc!=SQLITE_DONE&&rc!=SQLITE_ROW){fprintf(stderr,"%s:%d %s\n",__FILE__,__LINE__,sqlite3_errmsg(db));exit(1);}}while(0)
int main(int argc,char**argv){
  const char *target=argv[1]; int N=atoi(argv[2]); int n=atoi(argv[3]);
  sqlite3 *src; sqlite3_open("/tmp/imp/floor.sqlite",&src);
  // load tracks
  int T=n; 
  sqlite3_value ***tr=malloc(sizeof(void*)*T); sqlite3_value ***af=malloc(sizeof(void*)*T); long long *art=malloc(8*T); long long (*tags)[3]=malloc(24*T);
  sqlite3_stmt *s; int i=0;
  sqlite3_prepare_v2(src,"select spotify_id,name,album,album_id,release_date,release_precision,duration_ms,isrc,explicit,popularity,is_local,match_key,in_library from tracks order by id limit ?",-1,&s,0);
  sqlite3_bind_int(s,1,T);
  while(sqlite3_step(s)==SQLITE_ROW){tr[i]=malloc(sizeof(void*)*13);for(int c=0;c<13;c++)tr[i][c]=sqlite3_value_dup(sqlite3_column_value(s,c));i++;}
  sqlite3_finalize(s); T=i;
  sqlite3_prepare_v2(src,"select track_id, source_id, priority, import_run_id, fetched_at, danceability_code, energy_code, key, loudness_code, mode, speechiness_code, acousticness_code, instrumentalness_code, liveness_code, valence_code, tempo_code, time_signature, out_of_range from audio_features order by track_id limit ?",-1,&s,0);
  sqlite3_bind_int(s,1,T); i=0;
  while(sqlite3_step(s)==SQLITE_ROW){af[i]=malloc(sizeof(void*)*18);for(int c=0;c<18;c++)af[i][c]=sqlite3_value_dup(sqlite3_column_value(s,c));i++;}
  sqlite3_finalize(s);
  sqlite3_prepare_v2(src,"select artist_id from track_artists order by track_id limit ?",-1,&s,0); sqlite3_bind_int(s,1,T); i=0;
  while(sqlite3_step(s)==SQLITE_ROW){art[i++]=sqlite3_column_int64(s,0);} sqlite3_finalize(s);
  sqlite3_prepare_v2(src,"select tag_id from track_tags order by track_id, tag_id limit ?",-1,&s,0); sqlite3_bind_int(s,1,3*T); i=0;
  while(sqlite3_step(s)==SQLITE_ROW){tags[i/3][i%3]=sqlite3_column_int64(s,0);i++;} sqlite3_finalize(s);
  fprintf(stderr,"loaded %d\n",T);
  sqlite3 *db; sqlite3_open(target,&db);
  CHK(sqlite3_exec(db,"PRAGMA cache_size=-65536; PRAGMA synchronous=NORMAL; PRAGMA temp_store=FILE; PRAGMA foreign_keys=OFF; BEGIN;"
   "INSERT INTO main.sources SELECT 1,'file:features-csv' WHERE NOT EXISTS (SELECT 1 FROM sources);"
   "DROP INDEX tracks_match_key; DROP INDEX track_artists_artist; DROP INDEX tracks_spotify_id;",0,0,0));
  // triggers
  { sqlite3_stmt *q; sqlite3_prepare_v2(db,"select name from sqlite_master where type='trigger' and name like 'snapshot%'",-1,&q,0);
    char buf[100][64]; int k=0; while(sqlite3_step(q)==SQLITE_ROW) strcpy(buf[k++],(const char*)sqlite3_column_text(q,0)); sqlite3_finalize(q);
    for(int j=0;j<k;j++){char sql[128];sprintf(sql,"DROP TRIGGER %s",buf[j]);CHK(sqlite3_exec(db,sql,0,0,0));}}
  double w0=now(),c0=cpu();
  // build statements for N rows
  char *sql=malloc(1<<20); 
  #define MK(stmt,prefix,cols,rows) do{ strcpy(sql,prefix); for(int r=0;r<rows;r++){strcat(sql,r?",(":"(");for(int c=0;c<cols;c++)strcat(sql,c?",?":"?");strcat(sql,")");} CHK(sqlite3_prepare_v2(db,sql,-1,&stmt,0)); }while(0)
  sqlite3_stmt *it,*ia,*iar,*itg;
  MK(it,"INSERT OR IGNORE INTO tracks (id,spotify_id, name, album, album_id, release_date, release_precision, duration_ms, isrc, explicit, popularity, is_local, match_key, in_library) VALUES ",14,N);
  MK(ia,"INSERT OR IGNORE INTO audio_features (track_id, source_id, priority, import_run_id, fetched_at, danceability_code, energy_code, key, loudness_code, mode, speechiness_code, acousticness_code, instrumentalness_code, liveness_code, valence_code, tempo_code, time_signature, out_of_range) VALUES ",18,N);
  MK(iar,"INSERT OR REPLACE INTO track_artists (track_id, position, artist_id) VALUES ",3,N);
  MK(itg,"INSERT OR IGNORE INTO track_tags (track_id, tag_id, source_id) VALUES ",3,3*N);
  for(int b=0;b+N<=T;b+=N){
    for(int r=0;r<N;r++){int t=b+r; long long id=t+1;
      sqlite3_bind_int64(it,r*14+1,id);
      for(int c=0;c<13;c++){ sqlite3_value*v=tr[t][c]; int k=r*14+2+c;
        switch(sqlite3_value_type(v)){case SQLITE_INTEGER: sqlite3_bind_int64(it,k,sqlite3_value_int64(v));break;
          case SQLITE_TEXT: sqlite3_bind_text(it,k,(const char*)sqlite3_value_text(v),sqlite3_value_bytes(v),SQLITE_TRANSIENT);break;
          case SQLITE_FLOAT: sqlite3_bind_double(it,k,sqlite3_value_double(v));break; default: sqlite3_bind_null(it,k);} }
    }
    CHK(sqlite3_step(it)); sqlite3_reset(it);
    for(int r=0;r<N;r++){int t=b+r; for(int c=0;c<18;c++){sqlite3_value*v=af[t][c]; int k=r*18+1+c;
        switch(sqlite3_value_type(v)){case SQLITE_INTEGER: sqlite3_bind_int64(ia,k,sqlite3_value_int64(v));break;
          case SQLITE_FLOAT: sqlite3_bind_double(ia,k,sqlite3_value_double(v));break; default: sqlite3_bind_null(ia,k);} }}
    CHK(sqlite3_step(ia)); sqlite3_reset(ia);
    for(int r=0;r<N;r++){int t=b+r; sqlite3_bind_int64(iar,r*3+1,t+1);sqlite3_bind_int64(iar,r*3+2,0);sqlite3_bind_int64(iar,r*3+3,art[t]);}
    CHK(sqlite3_step(iar)); sqlite3_reset(iar);
    for(int r=0;r<N;r++){int t=b+r; for(int g=0;g<3;g++){int k=(r*3+g)*3; sqlite3_bind_int64(itg,k+1,t+1);sqlite3_bind_int64(itg,k+2,tags[t][g]);sqlite3_bind_int64(itg,k+3,1);}}
    CHK(sqlite3_step(itg)); sqlite3_reset(itg);
  }
  double w1=now(),c1=cpu();
  CHK(sqlite3_exec(db,"CREATE UNIQUE INDEX tracks_spotify_id ON tracks(spotify_id); CREATE INDEX tracks_match_key ON tracks(match_key); CREATE INDEX track_artists_artist ON track_artists(artist_id);",0,0,0));
  double w2=now(),c2=cpu();
  CHK(sqlite3_exec(db,"COMMIT",0,0,0));
  double w3=now(),c3=cpu();
  sqlite3_close(db);
  double w4=now(),c4=cpu();
  printf("N=%d rows: %.2f wall %.2f cpu; indexes %.2f/%.2f; commit %.2f/%.2f; close %.2f/%.2f\n",N,w1-w0,c1-c0,w2-w1,c2-c1,w3-w2,c3-c2,w4-w3,c4-c3);
}
