/**
 * The floor under any method-call mechanism that reaches native code through JNI: fib(N) as
 * BridgeWorkload runs it, and, with JNI_FLOOR=1 in the environment, the same fib calling two
 * empty static natives per call, the way instrumented methods call the bridge on entry and exit.
 * Run by bench/bench.sh; libjnifloor (jnifloor.c) holds the natives.
 */
public class JniFloor {
    static native void enter(int id);

    static native void exit(int id);

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static int fibCallingNatives(int n) {
        enter(1);
        int r = n < 2 ? n : fibCallingNatives(n - 1) + fibCallingNatives(n - 2);
        exit(1);
        return r;
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        if ("1".equals(System.getenv("JNI_FLOOR"))) {
            System.loadLibrary("jnifloor");
            System.out.println("fib " + fibCallingNatives(n));
        } else {
            System.out.println("fib " + fib(n));
        }
    }
}
