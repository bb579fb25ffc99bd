/*
 * H2Workload - a fixed JDBC query loop on an in-memory H2 database (Debian's libh2-java), for
 * `make bench`'s real-program tables: a real database engine's parser, planner and executor
 * making some hundred million calls.  Only java.sql here, so it compiles without H2; run it with
 * /usr/share/java/h2.jar on the class path.  Prints a checksum so the queries cannot go unused.
 *   java -cp h2.jar:classes H2Workload QUERIES
 */
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

public class H2Workload {
    public static void main(String[] args) throws SQLException {
        int queries = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:bench")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item(id INT PRIMARY KEY, grp INT, name VARCHAR(40), price DECIMAL(10,2))");
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO item VALUES(?, ?, ?, ?)")) {
                for (int i = 0; i < 20000; i++) {
                    insert.setInt(1, i);
                    insert.setInt(2, i % 97);
                    insert.setString(3, "item-" + i);
                    insert.setBigDecimal(4, java.math.BigDecimal.valueOf(i % 1000, 2));
                    insert.executeUpdate();
                }
            }
            long checksum = 0;
            try (PreparedStatement range = c.prepareStatement(
                         "SELECT id, name, price FROM item WHERE id BETWEEN ? AND ? ORDER BY price DESC");
                 PreparedStatement group = c.prepareStatement(
                         "SELECT grp, COUNT(*), SUM(price) FROM item WHERE grp < ? GROUP BY grp")) {
                for (int q = 0; q < queries; q++) {
                    PreparedStatement p = q % 50 == 0 ? group : range;
                    if (p == group) {
                        p.setInt(1, q % 97);
                    } else {
                        p.setInt(1, (q * 37) % 19000);
                        p.setInt(2, (q * 37) % 19000 + 20);
                    }
                    try (ResultSet r = p.executeQuery()) {
                        while (r.next())
                            checksum += r.getInt(1) + r.getString(2).length();
                    }
                }
            }
            System.out.println("checksum " + checksum);
        }
    }
}
