// TomcatWorkload: an embedded Tomcat 10 (Debian's libtomcat10-java) on a loopback port, one servlet
// doing what a small dynamic page does (headers read, sorted, a text built), for `make bench`'s
// request-throughput table under a load generator.  In a folder of its own: the
// tests' classes must compile without Tomcat, so bench/bench.sh compiles this one when the jars
// are there.  Prints "ready PORT" once it serves; stops when its standard input closes.
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Enumeration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

public class TomcatWorkload {
    static final class Page extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            Map<String, String> headers = new TreeMap<>();
            for (Enumeration<String> names = request.getHeaderNames(); names.hasMoreElements();) {
                String name = names.nextElement();
                headers.put(name.toLowerCase(), request.getHeader(name));
            }
            StringBuilder page = new StringBuilder("hello ").append(request.getRequestURI()).append('\n');
            headers.forEach((name, value) -> page.append(name).append(": ").append(value).append('\n'));
            response.setContentType("text/plain");
            response.setCharacterEncoding("UTF-8");
            response.getWriter().write(page.toString());
        }
    }

    public static void main(String[] args) throws Exception {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(args[0]);
        Connector connector = new Connector();
        connector.setPort(0); // any free port, said on standard output
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        Tomcat.addServlet(context, "page", new Page()).addMapping("/*");
        tomcat.start();
        System.out.println("ready " + connector.getLocalPort());
        System.out.flush();
        while (System.in.read() >= 0) {
        }
        tomcat.stop();
        tomcat.destroy();
    }
}
