import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataDefinition;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

/**
 * One anonymization in a fresh JVM, as a user runs ARX from the command line: read the table and its hierarchies,
 * search for the optimal full-domain generalization, write the output CSV. For benchmarks/bench_arx.py's cold,
 * whole-process comparison (the process is timed from outside).
 *
 *   java -cp "arx-core.jar:lib/*:BUILD" ArxOnce CSV HIERARCHY_PATTERN QIS K SUPPRESSION precision|dm OUT
 */
public class ArxOnce {
    public static void main(String[] args) throws Exception {
        String csv = args[0], pattern = args[1];
        List<String> qis = Arrays.asList(args[2].split(","));
        int k = Integer.parseInt(args[3]);
        double suppression = Double.parseDouble(args[4]);
        Data data = Data.create(csv, StandardCharsets.UTF_8, ';');
        DataHandle handle = data.getHandle();
        DataDefinition definition = data.getDefinition();
        for (int c = 0; c < handle.getNumColumns(); c++) {
            String attribute = handle.getAttributeName(c);
            if (qis.contains(attribute)) {
                definition.setAttributeType(attribute,
                        Hierarchy.create(String.format(pattern, attribute), StandardCharsets.UTF_8, ';'));
            } else {
                definition.setAttributeType(attribute, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(k));
        config.setQualityModel(args[5].equals("dm") ? Metric.createDiscernabilityMetric()
                : Metric.createPrecisionMetric());
        config.setSuppressionLimit(suppression);
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        result.getOutput().save(new File(args[6]), ';');
    }
}
