package kgbench.grammar;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.languagetool.JLanguageTool;
import org.languagetool.Language;
import org.languagetool.Languages;
import org.languagetool.rules.Rule;
import org.languagetool.rules.RuleMatch;

/**
 * LanguageTool's rules for one language, in-process, over a stdin/stdout batch protocol: the
 * grammar gate of kgbench's generated text ({@code extension/verbalize/grammar_gate.py} starts
 * and talks to it).
 *
 * <p>Why a pipe and not a server: the client's process owns the checker's whole life (it ends
 * when the client closes stdin or dies), there is no port to pick or to expose, and a batch
 * costs one write and one read. Maven Central serves LanguageTool's English rules; nothing
 * else is needed.
 *
 * <p>Usage: {@code GrammarGate [LANGUAGE]} (default {@code en-US}). On start it writes one
 * line, {@code {"ready":true,"languagetool":"6.8","language":"en-US","rules":N}}. Then, per
 * request, it reads a line holding a count {@code n} followed by {@code n} lines of text (one
 * text a line; the client replaces line breaks inside a text), checks them all, and only then
 * writes {@code n} lines, one JSON object per text in order:
 * {@code {"matches":[{"rule":ID,"sub":SUBID,"category":CAT,"type":ISSUE,"from":I,"to":J,
 * "message":M,"replacements":[...]}]}}, offsets in Unicode code points (Python's string
 * indices). Reading the whole batch before writing means neither side can block the other on a
 * full pipe. End of input ends the process with status 0; a malformed request ends it with
 * status 2 and a line on stderr.
 */
public final class GrammarGate {
    private static final int MAX_REPLACEMENTS = 3;

    private GrammarGate() {}

    public static void main(String[] args) throws Exception {
        String code = args.length > 0 ? args[0] : "en-US";
        // The protocol owns stdout; anything LanguageTool prints goes to stderr.
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        System.setOut(System.err);
        Writer out = new OutputStreamWriter(protocol, StandardCharsets.UTF_8);

        Language language = Languages.getLanguageForShortCode(code);
        JLanguageTool tool = new JLanguageTool(language);
        int rules = tool.getAllActiveRules().size();
        out.write("{\"ready\":true,\"languagetool\":" + quote(JLanguageTool.VERSION)
                + ",\"language\":" + quote(language.getShortCodeWithCountryAndVariant())
                + ",\"rules\":" + rules + "}\n");
        out.flush();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String header;
        while ((header = in.readLine()) != null) {
            int n;
            try {
                n = Integer.parseInt(header.trim());
            } catch (NumberFormatException e) {
                System.err.println("grammar gate: expected a count of texts, got: " + header);
                System.exit(2);
                return;
            }
            List<String> texts = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String text = in.readLine();
                if (text == null) {
                    System.err.println("grammar gate: input ended after " + i + " of " + n + " texts");
                    System.exit(2);
                    return;
                }
                texts.add(text);
            }
            StringBuilder batch = new StringBuilder();
            for (String text : texts) {
                appendMatches(batch, text, tool.check(text));
                batch.append('\n');
            }
            out.write(batch.toString());
            out.flush();
        }
    }

    private static void appendMatches(StringBuilder sb, String text, List<RuleMatch> matches) {
        sb.append("{\"matches\":[");
        for (int i = 0; i < matches.size(); i++) {
            RuleMatch m = matches.get(i);
            Rule rule = m.getRule();
            if (i > 0) {
                sb.append(',');
            }
            String sub = rule instanceof org.languagetool.rules.patterns.AbstractPatternRule p
                    ? p.getSubId() : null;
            sb.append("{\"rule\":").append(quote(rule.getId()))
              .append(",\"sub\":").append(sub == null ? "null" : quote(sub))
              .append(",\"category\":").append(quote(rule.getCategory().getId().toString()))
              .append(",\"type\":").append(quote(rule.getLocQualityIssueType().toString()))
              .append(",\"from\":").append(text.codePointCount(0, m.getFromPos()))
              .append(",\"to\":").append(text.codePointCount(0, m.getToPos()))
              .append(",\"message\":").append(quote(m.getMessage()))
              .append(",\"replacements\":[");
            List<String> replacements = m.getSuggestedReplacements();
            for (int r = 0; r < Math.min(MAX_REPLACEMENTS, replacements.size()); r++) {
                if (r > 0) {
                    sb.append(',');
                }
                sb.append(quote(replacements.get(r)));
            }
            sb.append("]}");
        }
        sb.append("]}");
    }

    /** A JSON string literal (RFC 8259: quote, backslash and control characters escaped). */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
