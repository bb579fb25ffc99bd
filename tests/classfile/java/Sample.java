import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * A program using what javac 17 generates beyond plain calls: records (with
 * invokedynamic ObjectMethods), a sealed interface, pattern instanceof, nest-mate
 * private access, lambdas, invokedynamic string concatenation, both switch forms, long
 * and double arguments, constructor chaining, and exits by exception: thrown, caught in
 * the same method, and thrown while evaluating super() arguments.  test_classfile_jdk
 * runs it before and after instrumentation and checks the output and the counts.
 */
public class Sample {
    sealed interface Shape permits Circle, Square {
    }

    record Circle(double r) implements Shape {
    }

    record Square(double side) implements Shape {
    }

    static class Base {
        final int size;

        Base(int size) {
            if (size < 0)
                throw new IllegalArgumentException("negative " + size);
            this.size = size;
        }
    }

    static class Child extends Base {
        Child(String text) {
            super(text.length() - 2);
        }
    }

    class Inner {
        int peek() {
            return secret;
        }
    }

    private int secret;

    Sample() {
        this(1);
    }

    Sample(int v) {
        secret = v + 41;
    }

    static double area(Shape s) {
        if (s instanceof Circle c)
            return 3 * c.r() * c.r();
        if (s instanceof Square q)
            return q.side() * q.side();
        throw new IllegalArgumentException();
    }

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static int thrower(int x) {
        if (x > 0)
            throw new IllegalStateException("boom " + x);
        return x;
    }

    static int catcher(int x) {
        try {
            return thrower(x);
        } catch (IllegalStateException e) {
            return -1;
        }
    }

    static int lookup(int k) {
        switch (k) {
        case 1: return 10;
        case 2: return 20;
        case 1000: return 30;
        default: return -k;
        }
    }

    static int table(int k) {
        switch (k) {
        case 0: return 5;
        case 1: return 6;
        case 2: return 7;
        case 3: return 8;
        default: return 0;
        }
    }

    static long mix(long a, double b, int c) {
        return a + (long) b + c;
    }

    static String child(String text) {
        try {
            return "size " + new Child(text).size;
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    public static void main(String[] args) {
        List<Shape> shapes = List.of(new Circle(1), new Square(2));
        double total = 0;
        for (Shape s : shapes)
            total += area(s);
        System.out.println("area " + total);
        IntUnaryOperator twice = x -> x * 2;
        System.out.println("lambda " + twice.applyAsInt(21));
        System.out.println("fib " + fib(10));
        System.out.println("inner " + new Sample().new Inner().peek());
        System.out.println("catch " + catcher(1) + " " + catcher(0));
        try {
            thrower(5);
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage());
        }
        System.out.println("switch " + lookup(1) + lookup(2) + lookup(1000) + lookup(7) + table(3));
        System.out.println("mix " + mix(1L << 40, 2.5, 3));
        System.out.println(new Circle(3));
        System.out.println(child("abcd") + " " + child(null) + " " + child("a"));
    }
}
