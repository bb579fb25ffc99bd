/**
 * Allocation programs whose truth is known, for jevprof's allocation weights (test_jevprof.c)
 * and `make bench` (beside JFR's allocation sampling).  The first argument picks one, the
 * second scales it (MiB allocated, about); each prints how many objects of each class it made,
 * one "count <class> <n>" line per class, so that a test can check shares against the truth.
 *   boxes MIB   mostly AllocWorkload$Box objects: 121 of every 125 allocations (96.8%), the
 *               other 4 AllocWorkload$Pair
 *   mixed MIB   half the bytes in 16-byte AllocWorkload$Box objects, half in 64 KiB byte arrays
 *   clone MIB   half the bytes in long[6] arrays made by clone() (allocations the VM makes
 *               itself: VMObjectAlloc), half in AllocWorkload$Box objects made by new
 * Every object escapes into a ring, so that the compiler cannot take the allocation away.
 */
public class AllocWorkload {
    static final Object[] ring = new Object[4096];
    static int slot;

    static final class Box {
        int value;

        Box(int value) {
            this.value = value;
        }
    }

    static final class Pair {
        Object first, second;

        Pair(Object first, Object second) {
            this.first = first;
            this.second = second;
        }
    }

    static void keep(Object o) {
        ring[slot] = o;
        slot = (slot + 1) & (ring.length - 1);
    }

    /* 16 bytes each on a 64-bit HotSpot with compressed class pointers (the usual layout). */
    static void boxes(long count) {
        for (long i = 0; i < count; i++)
            keep(new Box((int) i));
    }

    static long runBoxes(long mib) {
        long rounds = mib * (1 << 20) / (125 * 16), pairs = 0;
        for (long r = 0; r < rounds; r++) {
            boxes(121);
            for (int i = 0; i < 4; i++, pairs++)
                keep(new Pair(ring[0], ring[1]));
        }
        System.out.println("count AllocWorkload$Box " + rounds * 121);
        System.out.println("count AllocWorkload$Pair " + pairs);
        return rounds;
    }

    static byte[] array() {
        return new byte[65536 - 16]; /* 64 KiB with its header */
    }

    static void runMixed(long mib) {
        long arrays = mib * (1 << 20) / 2 / 65536, perArray = 65536 / 16;
        for (long a = 0; a < arrays; a++) {
            keep(array());
            boxes(perArray);
        }
        System.out.println("count AllocWorkload$Box " + arrays * perArray);
        System.out.println("count [B " + arrays);
    }

    static long[] copy(long[] original) {
        return original.clone();
    }

    static void runClone(long mib) {
        long[] original = {1, 2, 3, 4, 5, 6}; /* 16 + 48 bytes */
        long clones = mib * (1 << 20) / 2 / 64;
        for (long c = 0; c < clones; c++) {
            keep(copy(original));
            boxes(4);
        }
        System.out.println("count [J " + clones);
        System.out.println("count AllocWorkload$Box " + clones * 4);
    }

    public static void main(String[] args) {
        long mib = args.length > 1 ? Long.parseLong(args[1]) : 1024;
        switch (args.length > 0 ? args[0] : "") {
        case "boxes" -> runBoxes(mib);
        case "mixed" -> runMixed(mib);
        case "clone" -> runClone(mib);
        default -> {
            System.err.println("usage: AllocWorkload boxes|mixed|clone [MiB]");
            System.exit(2);
        }
        }
    }
}
