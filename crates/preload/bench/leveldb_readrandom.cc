// LevelDB readrandom, the Hemlock paper's real-program benchmark: fill a database, then read
// random keys from T threads for a fixed time. Every pthread mutex LevelDB takes (the DB mutex,
// the sharded LRU cache's mutexes) is what an LD_PRELOAD lock library replaces.
//
//   leveldb_readrandom fill DIR KEYS
//   leveldb_readrandom read DIR KEYS THREADS MILLISECONDS
//
// `read` prints one line: `reads=N found=F checksum=C seconds=S`. The checksum covers the values
// of a fixed, seed-determined set of keys read before the timed phase by every thread, so it is
// identical under every lock; N and F vary with speed (F == N: every key read exists).
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/options.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

static std::string key_of(uint64_t i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016" PRIu64, i);
    return buf;
}

static std::string value_of(uint64_t i) {
    std::string v(100, 'a');
    uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
    for (char &c : v) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        c = static_cast<char>('a' + x % 26);
    }
    return v;
}

static uint64_t fnv(const std::string &s, uint64_t h) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

static leveldb::DB *open_db(const char *dir, bool create, leveldb::Options &opt) {
    opt.create_if_missing = create;
    opt.block_cache = leveldb::NewLRUCache(64 << 20);
    leveldb::DB *db = nullptr;
    leveldb::Status s = leveldb::DB::Open(opt, dir, &db);
    if (!s.ok()) {
        std::fprintf(stderr, "open %s: %s\n", dir, s.ToString().c_str());
        std::exit(2);
    }
    return db;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s fill DIR KEYS | read DIR KEYS THREADS MILLISECONDS\n", argv[0]);
        return 2;
    }
    const char *dir = argv[2];
    uint64_t keys = std::strtoull(argv[3], nullptr, 10);
    leveldb::Options opt;
    if (std::strcmp(argv[1], "fill") == 0) {
        leveldb::DB *db = open_db(dir, true, opt);
        leveldb::WriteOptions w;
        for (uint64_t i = 0; i < keys; i++) {
            leveldb::Status s = db->Put(w, key_of(i), value_of(i));
            if (!s.ok()) { std::fprintf(stderr, "put: %s\n", s.ToString().c_str()); return 2; }
        }
        db->CompactRange(nullptr, nullptr);
        delete db;
        delete opt.block_cache;
        std::printf("filled %" PRIu64 " keys\n", keys);
        return 0;
    }
    if (std::strcmp(argv[1], "read") != 0 || argc < 6) {
        std::fprintf(stderr, "unknown mode or missing arguments\n");
        return 2;
    }
    int threads = std::atoi(argv[4]);
    long ms = std::atol(argv[5]);
    leveldb::DB *db = open_db(dir, false, opt);

    // The fixed part: each thread reads the same 1000 seed-chosen keys; the checksum must match
    // across threads and across locks.
    std::atomic<uint64_t> checksum{0}, reads{0}, found{0};
    std::atomic<bool> stop{false}, bad{false};
    std::atomic<int> ready{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; t++) {
        ts.emplace_back([&, t] {
            std::string v;
            uint64_t h = 14695981039346656037ull, x = 88172645463325252ull;
            for (int i = 0; i < 1000; i++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                uint64_t k = x % keys;
                if (!db->Get(leveldb::ReadOptions(), key_of(k), &v).ok() || v != value_of(k)) bad = true;
                h = fnv(v, h);
            }
            // Every thread read the same keys: all must agree on the checksum.
            uint64_t expected = 0;
            if (!checksum.compare_exchange_strong(expected, h) && expected != h) bad = true;
            ready.fetch_add(1);
            while (ready.load() < threads) std::this_thread::yield();
            uint64_t n = 0, f = 0, y = 0x2545F4914F6CDD1Dull ^ (static_cast<uint64_t>(t) + 1) * 0x9E3779B97F4A7C15ull;
            // The stop flag is checked before every read: under a lock that collapses, one read
            // can take milliseconds, and the window must still end on time.
            while (!stop.load(std::memory_order_relaxed)) {
                y ^= y << 13; y ^= y >> 7; y ^= y << 17;
                if (db->Get(leveldb::ReadOptions(), key_of(y % keys), &v).ok()) f++;
                n++;
            }
            reads.fetch_add(n);
            found.fetch_add(f);
        });
    }
    while (ready.load() < threads) std::this_thread::yield();
    auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    stop = true;
    for (auto &t : ts) t.join();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    delete db;
    delete opt.block_cache;
    if (bad) { std::fprintf(stderr, "a value read back differs from the one written\n"); return 3; }
    std::printf("reads=%" PRIu64 " found=%" PRIu64 " checksum=%016" PRIx64 " seconds=%.3f\n",
                reads.load(), found.load(), checksum.load() , secs);
    return 0;
}
